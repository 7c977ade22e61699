/**
 * The Function Compute 3.0 SDK's exports, the same under every loader. `@alicloud/fc20230330` is
 * CommonJS with an `exports.default` class, like the ECS SDK (see lib/adapters/alicloud-ecs/sdk.ts).
 */
import * as Fc from '@alicloud/fc20230330';

type FcClass = typeof Fc.default.default;

const exported: unknown = Fc.default;

/** The SDK's client class. */
export const FcClientClass: FcClass = (
  typeof exported === 'function' ? exported : (exported as { default: FcClass }).default
) as FcClass;

/** The SDK's request and response models. */
export { Fc };

/**
 * The Function Compute operations the fencer calls: a bundle keeps only these (the SDK re-exports its
 * 280 models from one barrel), and the bundled-function tests call each of them.
 */
export const FC_OPERATIONS = ['InvokeFunction', 'GetAsyncTask'] as const;
