// Types of processes.js for the TypeScript that imports it (the test helpers).
export declare const ENTRY_POINTS: Readonly<Record<'api' | 'worker' | 'cli', string>>;
export declare const DEFAULT_PORTS: Readonly<Record<'api' | 'worker' | 'redis' | 'mongodb' | 'postgres', number>>;
export declare const SHUTDOWN_DEFAULTS: Readonly<{ timeoutMs: number; forcedExitCode: number }>;
export declare function usesExternalRedis(env: Record<string, string | undefined>): boolean;
