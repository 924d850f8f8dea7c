/**
 * The part of node-postgres (`pg`, which ships no type declarations) that the PostgreSQL connector
 * uses to own its pool: the connector creates the `Pool` inside a scope and ends it on release, and
 * hands it to `PgClient.fromPool`.
 */
declare module "pg" {
  /** What a `Pool` hands to `onConnect`: a connected client. */
  export interface ClientBase {
    query(text: string): Promise<unknown>
  }

  export interface PoolConfig {
    readonly connectionString?: string
    readonly application_name?: string
    /** Milliseconds a new connection may take; 0 waits forever. */
    readonly connectionTimeoutMillis?: number
    readonly idleTimeoutMillis?: number
    readonly max?: number
    /** Runs on every new connection before it is used; a rejection fails the caller's query. */
    readonly onConnect?: (client: ClientBase) => Promise<void>
  }

  export class Pool {
    constructor(config?: PoolConfig)
    /** Ends every client; resolves once all are closed. */
    end(): Promise<void>
    on(event: "error", listener: (error: Error) => void): this
  }
}
