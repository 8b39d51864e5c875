// The resources a generated request's path names, made through the API itself for that request: a watchlist
// and an entry, a webhook endpoint and a delivery, a list, a key. A request that reads may share one made
// before; one that changes or deletes gets its own.
import type { FastifyInstance, InjectOptions } from 'fastify';

/**
 * Where a made endpoint posts: a name (accepted, as names are), which resolves to 127.0.0.1 and so is refused
 * when a delivery connects: a test delivery ends at once with that error, and nothing leaves the machine.
 */
export const FIXTURE_WEBHOOK_URL = 'http://localhost:9/hook';

export class PathFixtures {
  private readonly shared = new Map<string, Promise<Record<string, string>>>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly auth: string,
  ) {}

  /** Values of the path's parameters: resources made for this request, or (`share`) ones made before. */
  values(path: string, share: boolean): Promise<Record<string, string>> {
    if (!path.includes('{')) return Promise.resolve({});
    if (!share) return this.make(path);
    let made = this.shared.get(path);
    if (made === undefined) {
      made = this.make(path);
      this.shared.set(path, made);
    }
    return made;
  }

  /** The path with its parameters' values in place. */
  static fill(path: string, values: Record<string, string>): string {
    return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!));
  }

  private async make(path: string): Promise<Record<string, string>> {
    if (path.startsWith('/v1/watchlists/')) {
      const id = await this.watchlist();
      return path.includes('{entry_id}') ? { id, entry_id: await this.entry(id) } : { id };
    }
    if (path.startsWith('/v1/webhooks/')) {
      const id = await this.webhook();
      return path.includes('{delivery_id}') ? { id, delivery_id: await this.delivery(id) } : { id };
    }
    if (path.startsWith('/v1/lists/')) return { id: await this.list(path.endsWith('/result')) };
    if (path.startsWith('/v1/admin/keys/')) return { id: await this.key() };
    throw new Error(`No resource is made for the parameters of ${path}`);
  }

  /** A JSON answer of the app, which must be a success. */
  async call(options: InjectOptions): Promise<Record<string, unknown>> {
    const res = await this.app.inject({
      ...options,
      headers: { authorization: this.auth, ...options.headers },
    });
    if (res.statusCode >= 300) {
      throw new Error(`${options.method} ${options.url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    }
    return res.body === '' ? {} : res.json();
  }

  async watchlist(): Promise<string> {
    return (await this.call({ method: 'POST', url: '/v1/watchlists', payload: { name: 'Made' } }))
      .id as string;
  }

  private async entry(watchlist: string): Promise<string> {
    const url = `/v1/watchlists/${watchlist}/entries`;
    await this.call({ method: 'POST', url, payload: { entries: [{ person: { id: 'fp000000000001' } }] } });
    const page = (await this.call({ method: 'GET', url })) as { data: Array<{ id: string }> };
    return page.data[0]!.id;
  }

  private async webhook(): Promise<string> {
    const made = await this.call({
      method: 'POST',
      url: '/v1/webhooks',
      payload: { url: FIXTURE_WEBHOOK_URL, types: ['person.created'] },
    });
    return (made.endpoint as { id: string }).id;
  }

  private async delivery(webhook: string): Promise<string> {
    const tested = await this.call({ method: 'POST', url: `/v1/webhooks/${webhook}/test` });
    return tested.delivery_id as string;
  }

  /** A list of one row; `done`: once it has been matched, so that its result is there. */
  private async list(done: boolean): Promise<string> {
    const { id } = (await this.call({
      method: 'POST',
      url: '/v1/lists?entity=people',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: '{"enrich_id":"fp000000000001"}\n',
    })) as { id: string };
    for (let waited = 0; done; waited += 20) {
      const { status } = await this.call({ method: 'GET', url: `/v1/lists/${id}` });
      if (status === 'done') break;
      if (status === 'failed' || waited > 10_000) throw new Error(`The list ${id} is ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return id;
  }

  private async key(): Promise<string> {
    return (await this.call({ method: 'POST', url: '/v1/admin/keys', payload: { name: 'Made' } }))
      .id as string;
  }
}
