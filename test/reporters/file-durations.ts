import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 15;

/**
 * After a run: the time each test file took (importing it plus its tests and hooks), slowest first, per project
 * and in all, so a slow suite says where its minutes go. The slowest files are printed; every file is written to
 * `.artifacts/test-durations.tsv`.
 */
export class FileDurations implements Reporter {
  readonly #root = process.cwd();

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules
      .map((module) => {
        const diagnostic = module.diagnostic();
        return {
          project: module.project.name || 'default',
          file: relative(this.#root, module.moduleId),
          seconds: (diagnostic.collectDuration + diagnostic.duration) / 1000,
        };
      })
      .sort((a, b) => b.seconds - a.seconds);
    if (files.length === 0) return;
    const byProject = new Map<string, { files: number; seconds: number }>();
    for (const { project, seconds } of files) {
      const total = byProject.get(project) ?? { files: 0, seconds: 0 };
      byProject.set(project, { files: total.files + 1, seconds: total.seconds + seconds });
    }
    const lines = [`\n[durations] ${files.length} test files; the slowest ${Math.min(SHOWN, files.length)}:`];
    for (const { project, file, seconds } of files.slice(0, SHOWN)) {
      lines.push(`  ${seconds.toFixed(1).padStart(7)} s  ${project.padEnd(11)} ${file}`);
    }
    const projects = [...byProject].map(([name, t]) => `${name} ${t.files} files ${t.seconds.toFixed(0)} s`);
    lines.push(`[durations] per project (file time summed, files run in parallel): ${projects.join('; ')}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(`${this.#root}/.artifacts`, { recursive: true });
    writeFileSync(
      `${this.#root}/.artifacts/test-durations.tsv`,
      ['seconds\tproject\tfile', ...files.map((f) => `${f.seconds.toFixed(2)}\t${f.project}\t${f.file}`)].join('\n'),
    );
  }
}
