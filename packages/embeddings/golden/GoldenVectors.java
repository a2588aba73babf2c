// Reference embeddings from the model artifact's own Java class (langchain4j), to check ours against.
// Run by golden-vectors.sh with the model folder; prints one JSON object per line: {"text", "tokens", "vector"}
// (tokens from the same Hugging Face tokenizer library that langchain4j runs, through DJL).
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.nio.file.Files;
import java.nio.file.Path;

public class GoldenVectors {
  public static void main(String[] args) throws Exception {
    var model = new AllMiniLmL6V2QuantizedEmbeddingModel();
    var tokenizer = HuggingFaceTokenizer.newInstance(Path.of(args[1], "tokenizer.json"));
    for (String text : Files.readAllLines(Path.of(args[0]))) {
      if (text.isEmpty()) continue;
      float[] v = model.embed(text).content().vector();
      var out = new StringBuilder("{\"text\":").append(quote(text)).append(",\"tokens\":[");
      String[] tokens = tokenizer.encode(text).getTokens();
      for (int i = 0; i < tokens.length; i++) out.append(i == 0 ? "" : ",").append(quote(tokens[i]));
      out.append("],\"vector\":[");
      for (int i = 0; i < v.length; i++) out.append(i == 0 ? "" : ",").append(v[i]);
      System.out.println(out.append("]}"));
    }
  }

  private static String quote(String s) {
    var b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
}
