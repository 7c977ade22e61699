/**
 * Settings a CDK app may give as tokens (another construct's attribute, known at deploy time): a
 * literal is checked at synth; a token is left to CloudFormation, which fails the deploy on a bad one.
 */
import { Token } from 'aws-cdk-lib';
import * as z from 'zod';

/** A string that `check` accepts, or a token. */
export const checkedUnlessToken = (check: z.ZodString) =>
  z.string().superRefine((value, ctx) => {
    if (Token.isUnresolved(value)) return;
    const checked = check.safeParse(value);
    for (const issue of checked.success ? [] : checked.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message });
    }
  });

/** An ARN (`arn:…`, at most 2,048 characters), or a token. */
export const arnOrToken = checkedUnlessToken(z.string().max(2048).startsWith('arn:'));
