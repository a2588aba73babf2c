import net from 'node:net';

/**
 * A TCP proxy in front of a real service, to take it "down" for one test without stopping the service
 * other tests share: while down, open connections are cut and new ones are refused.
 */
export class TcpProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #down = false;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#server = net.createServer((client) => {
      if (this.#down) {
        client.destroy();
        return;
      }
      const upstream = net.connect(target.port, target.host);
      this.#sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.#sockets.delete(client);
        this.#sockets.delete(upstream);
      };
      client.pipe(upstream).pipe(client);
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as net.AddressInfo).port;
    return `127.0.0.1:${this.port}`;
  }

  down(): void {
    this.#down = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  up(): void {
    this.#down = false;
  }

  close(): Promise<void> {
    this.down();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
