// @ts-check
/** Ask for a password-reset letter. The answer is the same whether or not the address has an account. */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { Field, PageTitle, Refusal, useTitle } from '../ui/common.js';

export default function ForgotPassword() {
  useTitle('Reset your password');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [sent, setSent] = useState(false);
  /** @param {SubmitEvent} e */
  const submit = async (e) => {
    e.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
    setError(null);
    try {
      await api.requestPasswordReset(String(data.get('email') ?? ''));
      setSent(true);
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="card narrow">
    <${PageTitle}>Reset your password<//>
    ${sent
      ? html`<p role="alert">If that address has an account, a letter with a reset link is on its way. The link works for an hour.</p>`
      : html`<form onSubmit=${submit} class="stack">
          <${Field} label="Email" name="email" type="email" required autocomplete="email" />
          <${Refusal} error=${error} />
          <button type="submit" class="primary">Send the reset link</button>
        </form>`}
    <p class="aside"><a href="/sign-in">Back to sign in</a></p>
  </section>`;
}
