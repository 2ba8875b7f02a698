/**
 * The remote MCP runtime's operator call the portcullis-forwarding child
 * makes, declared here so that the benchmark type-checks on a build without
 * it. The bundler maps the name to runtime/core/operator/remote-connections.ts
 * (../bundle-servers.ts), and only on a build that has that file.
 */
declare module 'portcullis-bench:remote-connections' {
  /** `portcullis connect-url <url> --name <name>`: probes the address, pins its tools (quarantined). */
  export function connectUrl(
    ctx: unknown,
    input: { workspace: string; url: string; name?: string },
  ): Promise<{ next: 'review' | 'sign_in' | 'credential' }>;
}
