import type { Recipe } from '../recipe.ts';
import { derived } from '../registry.ts';

/**
 * Every recipe, by event type. Each lives with the module whose objects it drives
 * (`<module>.recipes.ts`, what a recipe is: modules/recipe.ts) and is listed in that module's
 * manifest (`recipes`); this map is derived from the registered manifests on first use.
 */
export const recipes: () => ReadonlyMap<string, Recipe> = derived((modules) => {
  const byType = new Map<string, Recipe>();
  for (const module of modules)
    for (const recipe of module.recipes ?? []) {
      if (byType.has(recipe.type)) throw new Error(`two recipes for ${recipe.type} (one in ${module.name})`);
      byType.set(recipe.type, recipe);
    }
  return byType;
});
