// @ts-check
/** The page the verification letter links to: `/verify-email?token=`. Without a token, a signed-in person may ask for a new letter. */

import { useEffect, useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { useStore } from '../store.js';
import { PageTitle, Refusal, useTitle } from '../ui/common.js';

/** @param {import('../router.js').PageProps} props */
export default function VerifyEmail({ query }) {
  useTitle('Verify your email');
  const store = useStore();
  const token = query.get('token') ?? '';
  const [state, setState] = useState(/** @type {'idle' | 'working' | 'verified' | 'sent'} */ ('idle'));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    if (!token) return;
    setState('working');
    api.verifyEmail(token).then(
      () => setState('verified'),
      (e) => {
        setError(e);
        setState('idle');
      },
    );
  }, [token]);
  const resend = async () => {
    setError(null);
    try {
      await api.resendVerification();
      setState('sent');
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card narrow">
    <${PageTitle}>Verify your email<//>
    ${state === 'working' && html`<p aria-live="polite">Checking the link…</p>`}
    ${state === 'verified' && html`<p role="alert">Your address is verified. <a href=${store.session ? '/library' : '/sign-in'}>Continue</a>.</p>`}
    ${state === 'sent' && html`<p role="alert">A new letter is on its way; earlier links no longer work.</p>`}
    <${Refusal} error=${error} />
    ${state !== 'verified' && state !== 'working' && (store.session
      ? html`<p><button type="button" onClick=${resend}>Send a new verification letter</button></p>`
      : html`<p class="aside">To get a new letter, <a href="/sign-in?next=/verify-email">sign in</a> first.</p>`)}
  </section>`;
}
