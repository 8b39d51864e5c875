// A setup file of every test: each response inject() gives a test is checked against the OpenAPI document
// (conformance.ts), and the request fails, failing its test, when it is not as documented.
import { watchInjections } from '../helpers/injections.js';
import { checkResponse } from './conformance.js';

watchInjections(
  'openapi',
  (method, url) => (res) => checkResponse(method, url, res.statusCode, res.headers, res.rawPayload),
);
