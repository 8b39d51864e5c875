// HTTPS credentials: the certificate and key files read and checked to belong together, at start and
// again on SIGHUP, with errors that name the file and never print what is in it.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../config-error.js';

export interface TlsFiles {
  /** The certificate, PEM: the server's own first, then any intermediates. */
  cert: string;
  /** Its private key, PEM, unencrypted. */
  key: string;
}

export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
}

/** The TLS files of a configuration, when it serves HTTPS. */
export function tlsFiles(config: { tlsCert?: string | undefined; tlsKey?: string | undefined }) {
  return config.tlsCert && config.tlsKey ? { cert: config.tlsCert, key: config.tlsKey } : undefined;
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
};

function readPem(path: string, setting: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new ConfigError(`${setting} ${path}: ${READ_ERRORS[code] ?? `cannot be read (${code})`}`);
  }
}

/** OpenSSL's reason, without its error number: it names a routine, never the file's content. */
const reason = (error: unknown) => String((error as Error).message).replace(/^error:[0-9A-F]+:/, '');

/**
 * Reads and checks the certificate and key: a certificate that does not parse, a key that does not
 * (or is encrypted), or a key that is not the certificate's, is a ConfigError naming the file.
 */
export function readTls(files: TlsFiles): TlsCredentials {
  const cert = readPem(files.cert, 'ENRICH_TLS_CERT (--tls-cert)');
  const key = readPem(files.key, 'ENRICH_TLS_KEY (--tls-key)');
  try {
    new X509Certificate(cert);
  } catch (error) {
    throw new ConfigError(`${files.cert}: not a PEM certificate (${reason(error)})`);
  }
  try {
    createPrivateKey(key);
  } catch (error) {
    // PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`) and OpenSSL's older `Proc-Type: 4,ENCRYPTED` alike.
    const encrypted = key.includes('ENCRYPTED');
    throw new ConfigError(
      encrypted
        ? `${files.key}: the private key is encrypted; give it unencrypted (openssl pkey -in … -out …)`
        : `${files.key}: not a PEM private key (${reason(error)})`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new ConfigError(
      `${files.key}: the private key does not match the certificate in ${files.cert} (${reason(error)})`,
    );
  }
  return { cert, key };
}

export interface ReloadLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * On SIGHUP, reads the files again and gives the server the new certificate: new connections get it,
 * connections already open keep theirs. Files that fail the checks leave the current one in place.
 */
export function reloadOnHangup(server: Server, files: TlsFiles, log: ReloadLog): void {
  process.on('SIGHUP', () => {
    try {
      server.setSecureContext(readTls(files));
      log.info({ cert: files.cert }, 'TLS certificate reloaded');
    } catch (error) {
      log.error({ err: error }, 'TLS certificate not reloaded; the current one stays');
    }
  });
}
