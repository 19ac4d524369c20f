/**
 * What a step screen gets from the sign-in flow that shows it (src/signin.ts). The flow
 * owns the screens: a screen reads and reports through this interface and never imports
 * the flow, so the imports run one way (flow → screens).
 */
import type { Challenge, Step, StepResult } from "../api";
import type { Form } from "../dom";

export interface StepContext {
  readonly challenge: Challenge;
  /** The email typed on the password or face step, carried to the other one. */
  email: string | null;
  /** Set when the face step answered 503: the password step then hides the face option. */
  faceUnavailable: boolean;
  /** Whether the password step offers "Sign in with your face". */
  readonly offersFace: boolean;
  /** Whether this step offers a passkey (the challenge says so and the browser can). */
  readonly offersPasskey: boolean;
  /** The email to pre-fill: what the person typed, else the client's `login_hint`. */
  readonly emailHint: string;
  /** Acts on a step's answer; true when the browser is navigating away. */
  advance(result: StepResult): Promise<boolean>;
  /** Handles the errors every step shares: expired challenge, 422, 429, network. */
  fail(error: unknown, form: Form): void;
  /** Shows the screen of `step`. */
  show(step: Step): void;
  /** Shows the face step in place of the password ("Sign in with your face"). */
  chooseFace(): void;
}
