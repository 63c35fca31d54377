/**
 * The server's entry point (`npm start`, dist/main.js). On PGlite its worker thread starts opening
 * the database first (prestart.ts); only then is the rest of the server loaded (serve.ts), so that
 * the two overlap on start-up instead of adding up.
 */
import './prestart.ts';

await import('./serve.ts');
