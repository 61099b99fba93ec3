// @ts-check
/** Sign up: Name, Email, Password, "Create account". The new house opens on its library. */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { loadSession } from '../store.js';
import { Field, PageTitle, Refusal, useTitle } from '../ui/common.js';

/** @param {import('../router.js').PageProps} props */
export default function SignUp({ query }) {
  useTitle('Create an account');
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
      await api.signUp(
        String(data.get('email') ?? ''),
        String(data.get('password') ?? ''),
        String(data.get('name') ?? '').trim() || null,
      );
      await loadSession();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const signIn = next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in';
  return html`<section class="card narrow">
    <${PageTitle}>Create an account<//>
    <p>A house of your own, with tokens to start developing.</p>
    <form onSubmit=${submit} class="stack">
      <${Field} label="Name" name="name" autocomplete="name" />
      <${Field} label="Email" name="email" type="email" required autocomplete="email" />
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
      <button type="submit" class="primary" disabled=${busy}>Create account</button>
    </form>
    <p class="aside">Already have an account? <a href=${signIn}>Sign in</a></p>
  </section>`;
}
