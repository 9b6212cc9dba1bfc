/** The slice of autocannon 8's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      workers?: number;
      requests?: Request[];
    }
    interface Histogram {
      average: number;
      total: number;
      p50: number;
      p99: number;
      max: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      errors: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
