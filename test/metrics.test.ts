import { describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';

describe('request metrics', () => {
  it('renders counts and cumulative latency buckets per method, route and status at scrape time', async () => {
    const metrics = createMetrics();
    metrics.http.record('GET', '/people', 200, 0.0004);
    metrics.http.record('GET', '/people', 200, 0.003);
    metrics.http.record('GET', '/people', 200, 2);
    metrics.http.record('GET', '/people', 404, 0.001);
    const text = await metrics.registry.metrics();
    const labels = 'method="GET",route="/people",status="200"';
    expect(text).toContain('# TYPE enrich_http_requests_total counter');
    expect(text).toContain(`enrich_http_requests_total{${labels}} 3`);
    expect(text).toContain('enrich_http_requests_total{method="GET",route="/people",status="404"} 1');
    expect(text).toContain('# TYPE enrich_http_request_duration_seconds histogram');
    const bucket = (le: string) => `enrich_http_request_duration_seconds_bucket{${labels},le="${le}"}`;
    expect(text).toContain(`${bucket('0.0005')} 1`);
    expect(text).toContain(`${bucket('0.001')} 1`);
    expect(text).toContain(`${bucket('0.005')} 2`);
    expect(text).toContain(`${bucket('1')} 2`);
    expect(text).toContain(`${bucket('+Inf')} 3`);
    expect(text).toContain(`enrich_http_request_duration_seconds_count{${labels}} 3`);
    expect(text).toMatch(new RegExp(`enrich_http_request_duration_seconds_sum\\{${labels}\\} 2\\.0034`));
  });
});
