import net from 'node:net';

/**
 * A TCP proxy in front of the test server that can drop every connection at once, as a server
 * that goes away would (new connections still pass, as after a restart).
 */
export class TcpProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private down = false;
  private hung = false;

  private constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      if (this.down) {
        client.destroy();
        return;
      }
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      if (this.hung) return; // connected, never forwarded
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  static async start(targetUri: string): Promise<{ proxy: TcpProxy; uri: string }> {
    const url = new URL(targetUri);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port) });
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.server.address() as net.AddressInfo;
    return { proxy, uri: `bolt://127.0.0.1:${port}` };
  }

  /**
   * A hung server: connections stay open and nothing more passes either way (what a frozen
   * process or a dropped network path looks like to a client).
   */
  hang(): void {
    this.hung = true;
    for (const s of this.sockets) {
      s.unpipe();
      s.pause();
    }
  }

  /** Destroys every open connection. */
  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** The server is gone for `ms`: open connections drop, new ones are refused until then. */
  outage(ms: number): void {
    this.down = true;
    this.cut();
    setTimeout(() => (this.down = false), ms);
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
