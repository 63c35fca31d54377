import { advanceClock } from '../clock/clock.change.ts';
import { clockFor } from '../clock/clock.service.ts';
import type { ServiceContext } from '../context.ts';
import type { RecipeDriver } from '../recipe.ts';

/**
 * What a recipe's run is given (modules/recipe.ts): the merchant's service context with the clock
 * read afresh after each advance. The recipes call the services behind the operations themselves.
 */
export class Driver implements RecipeDriver {
  private clock: ServiceContext['clock'];

  constructor(private readonly base: ServiceContext) {
    this.clock = base.clock;
  }

  now(): Date {
    return this.clock.now();
  }

  /** The service context of the next step (the clock read afresh). */
  context(): ServiceContext {
    return { ...this.base, clock: this.clock };
  }

  /** POST /v1/clock/advance {seconds}: runs every piece of the merchant's work that falls due. */
  async advance(seconds: number): Promise<void> {
    await advanceClock(this.context(), { seconds });
    this.clock = await clockFor(this.base.db, this.base.merchant.id);
  }
}
