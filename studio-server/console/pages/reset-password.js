// @ts-check
/** The page the reset letter links to: `/reset-password?token=`. Sets a new password. */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { Field, PageTitle, Refusal, useTitle } from '../ui/common.js';

/** @param {import('../router.js').PageProps} props */
export default function ResetPassword({ query }) {
  useTitle('Choose a new password');
  const token = query.get('token') ?? '';
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [done, setDone] = useState(false);
  /** @param {SubmitEvent} e */
  const submit = async (e) => {
    e.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
    setError(null);
    try {
      await api.confirmPasswordReset(token, String(data.get('password') ?? ''));
      setDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card narrow">
    <${PageTitle}>Choose a new password<//>
    ${!token
      ? html`<p>This link has no token. Open the link from the letter again, or <a href="/forgot-password">ask for a new one</a>.</p>`
      : done
        ? html`<p role="alert">Your password is changed and every session was signed out. <a href="/sign-in">Sign in</a> with the new one.</p>`
        : html`<form onSubmit=${submit} class="stack">
            <${Field}
              label="Password"
              name="password"
              type="password"
              required
              minlength=${10}
              autocomplete="new-password"
              hint="At least 10 characters."
            />
            <${Refusal} error=${error} />
            <button type="submit" class="primary">Set the password</button>
          </form>`}
  </section>`;
}
