/**
 * The SDK's exports, the same under every loader. `@alicloud/ecs20140526` is CommonJS with an
 * `exports.default` class: Node.js ESM and esbuild hand a default import the whole `module.exports`
 * (so the class is at `.default.default`), while Vite's interop hands it the class itself. The request
 * models are read from the namespace, which every loader fills from `module.exports`.
 */
import * as Ecs from '@alicloud/ecs20140526';

type EcsClass = typeof Ecs.default.default;

const exported: unknown = Ecs.default;

/** The SDK's client class. */
export const EcsClientClass: EcsClass = (
  typeof exported === 'function' ? exported : (exported as { default: EcsClass }).default
) as EcsClass;

/** The SDK's request and response models (`Ecs.StopInstancesRequest`, ...). */
export { Ecs };

/**
 * The ECS operations the fencer calls. A bundler that keeps only these operations' models (the SDK
 * re-exports all 3,400 of them from one barrel) must keep exactly these; the bundled-adapter test
 * calls each one through such a bundle.
 */
export const ECS_OPERATIONS = [
  'DescribeInstances',
  'DescribeInstanceAttribute',
  'DescribeDisks',
  'StopInstances',
] as const;
