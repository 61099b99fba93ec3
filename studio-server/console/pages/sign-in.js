// @ts-check
/** Sign in: Email, Password, "Sign in"; a link to sign up ("Create an account"). */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { loadSession } from '../store.js';
import { Field, PageTitle, Refusal, useTitle } from '../ui/common.js';

/** @param {import('../router.js').PageProps} props */
export default function SignIn({ query }) {
  useTitle('Sign in');
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [busy, setBusy] = useState(false);
  const next = query.get('next');
  /** @param {SubmitEvent} e */
  const submit = async (e) => {
    e.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
    setBusy(true);
    setError(null);
    try {
      await api.signIn(String(data.get('email') ?? ''), String(data.get('password') ?? ''));
      await loadSession();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const signUp = next ? `/sign-up?next=${encodeURIComponent(next)}` : '/sign-up';
  return html`<section class="card narrow">
    <${PageTitle}>Sign in<//>
    <form onSubmit=${submit} class="stack">
      <${Field} label="Email" name="email" type="email" required autocomplete="email" />
      <${Field} label="Password" name="password" type="password" required autocomplete="current-password" />
      <${Refusal} error=${error} />
      <button type="submit" class="primary" disabled=${busy}>Sign in</button>
    </form>
    <p class="aside">New to Studio? <a href=${signUp}>Create an account</a></p>
    <p class="aside"><a href="/forgot-password">Forgot your password?</a></p>
  </section>`;
}
