// A setting that cannot be used: a value out of range, a file that is not what it should be. The CLI shows
// its message as a usage error. Its own module, so that what checks a setting need not import all of config.

export class ConfigError extends Error {
  override name = 'ConfigError';
}
