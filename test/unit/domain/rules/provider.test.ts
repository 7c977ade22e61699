/**
 * Errors judged once (SAFETY.md rule 9): a provider error the adapter judged permanent ends the run at
 * once with its own reason; a retryable one is left to the rules that wait for an answer.
 */
import { describe, expect, it } from 'vitest';
import { decide, NotApplicable, type ProviderFault } from '../../../../lib/domain/index.js';
import { providerAcceptsCalls, unfenceProviderAcceptsCalls } from '../../../../lib/domain/rules/provider.js';
import {
  aRequest,
  checkFence,
  checkUnfence,
  committedHistory,
  fault,
  INSTANCE,
  observe,
  taintedNode,
} from '../support/fixtures.js';

const signature: ProviderFault = {
  name: 'ProviderApiError',
  message: 'ECS DescribeInstances failed: SignatureDoesNotMatch: the signature does not match',
  permanent: 'credentials',
};
const denied: ProviderFault = {
  name: 'ProviderApiError',
  message: 'EC2 DescribeInstances failed: UnauthorizedOperation: not authorized',
  permanent: 'rejected',
};

describe('provider-accepts-calls', () => {
  it('refuses at once, before the commitment, when the provider rejected the credentials', () => {
    expect(checkFence(providerAcceptsCalls, { ownership: signature, power: signature })).toMatchObject({
      phase: 'Refused',
      reason: 'ProviderCredentialsRejected',
      action: null,
      evidence: [expect.stringContaining('SignatureDoesNotMatch')],
    });
  });

  it('ends a committed run as Failed, naming a missing permission', () => {
    expect(
      checkFence(providerAcceptsCalls, { at: 20, power: denied }, aRequest(), committedHistory()),
    ).toMatchObject({ phase: 'Failed', reason: 'ProviderCallRejected', action: null });
  });

  it('leaves a retryable fault to the rules that ask again', () => {
    expect(checkFence(providerAcceptsCalls, { ownership: fault(), power: fault() })).toEqual(NotApplicable);
    expect(checkFence(providerAcceptsCalls, {})).toEqual(NotApplicable);
  });

  it('ends the run on its first step through decide(), instead of waiting on ownership until the deadline', () => {
    const decision = decide(
      observe({ ownership: signature, power: signature, identity: signature }),
      aRequest(),
      {
        ...committedHistory(),
        decidedToFenceAt: null,
        target: null,
        isolation: null,
        storageBefore: null,
        powerOffRequestedAt: null,
      },
    );
    expect(decision).toMatchObject({ reason: 'ProviderCredentialsRejected', done: true, action: null });
  });
});

describe('unfence-provider-accepts-calls', () => {
  it('keeps the taint and ends the un-fence at once when the provider rejected the credentials', () => {
    const spec = {
      node: { ...taintedNode(), ready: 'True' as const },
      ownership: signature,
      power: signature,
    };
    expect(checkUnfence(unfenceProviderAcceptsCalls, spec)).toMatchObject({
      phase: 'Refused',
      reason: 'ProviderCredentialsRejected',
      action: null,
      evidence: [`${INSTANCE}: ProviderApiError: ${signature.message}`],
    });
  });

  it('names the machine and the rejected call when a permission is missing', () => {
    const spec = { node: { ...taintedNode(), ready: 'True' as const }, power: denied };
    expect(checkUnfence(unfenceProviderAcceptsCalls, spec)).toMatchObject({
      phase: 'Refused',
      reason: 'ProviderCallRejected',
      evidence: [
        `${INSTANCE}: ProviderApiError: EC2 DescribeInstances failed: UnauthorizedOperation: not authorized`,
      ],
    });
  });

  it('leaves a retryable fault to the rules that wait', () => {
    const spec = { node: { ...taintedNode(), ready: 'True' as const }, ownership: fault() };
    expect(checkUnfence(unfenceProviderAcceptsCalls, spec)).toEqual(NotApplicable);
  });
});
