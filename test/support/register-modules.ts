import { registerModules } from '../../src/modules/index.ts';

/**
 * Every test file starts with the modules registered, as the app and the CLI do at start-up: tests
 * that call services directly read the registries derived from the manifests (event types,
 * recipes, reset kinds) without building an app first.
 */
registerModules();
