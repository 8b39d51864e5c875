// The ceiling: a bare Fastify server returning one real record, as stored, for GET /people and GET /company.
// Run as its own process: node --import tsx bench/static-server.ts PERSON_FILE COMPANY_FILE [WORKERS]
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [personFile, companyFile, workerCount = '1'] = process.argv.slice(2);
if (!personFile || !companyFile || !/^[1-9]\d*$/.test(workerCount)) {
  process.stderr.write('usage: static-server.ts PERSON_BODY_FILE COMPANY_BODY_FILE [WORKERS]\n');
  process.exit(2);
}
const workers = Number(workerCount);

async function serve(): Promise<string> {
  const person = readFileSync(personFile!, 'utf8');
  const company = readFileSync(companyFile!, 'utf8');
  const app = Fastify({ logger: false });
  // The same content type as Enrich's lookups; the query string is ignored.
  app.get('/people', (_request, reply) => reply.type('application/json; charset=utf-8').send(person));
  app.get('/company', (_request, reply) => reply.type('application/json; charset=utf-8').send(company));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void app.close().then(() => process.exit(0)));
  }
  // Workers of a cluster listening on port 0 all share the one port the primary picks.
  return app.listen({ host: '127.0.0.1', port: 0 });
}

if (workers === 1) {
  process.stdout.write(`listening on ${await serve()}\n`);
} else if (cluster.isPrimary) {
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill(signal);
      cluster.disconnect(() => process.exit(0));
    });
  }
} else {
  await serve();
}
