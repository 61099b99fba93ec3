// @ts-check
/** The page a seat invitation links to: `/join/{invitationId}`. Accepting seats the person in that house. */

import { useState } from '../vendor/hooks.mjs';
import { html } from '../html.js';
import * as api from '../api.js';
import { houseChanged, useStore } from '../store.js';
import { navigate } from '../router.js';
import { PageTitle, Refusal, useTitle } from '../ui/common.js';

/** @param {import('../router.js').PageProps} props */
export default function Join({ rest }) {
  useTitle('Join a house');
  const store = useStore();
  const id = rest[0] ?? '';
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const accept = async () => {
    setError(null);
    try {
      await api.acceptSeat(id);
      await houseChanged();
      navigate('/library');
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card narrow">
    <${PageTitle}>Join a house<//>
    <p>You were invited to a seat in another house, as ${store.session?.user.email}. Accepting lets this session act for that house; your own house stays yours (switch between them at the top).</p>
    <${Refusal} error=${error} />
    <p><button type="button" class="primary" onClick=${accept} disabled=${!id}>Accept the invitation</button></p>
  </section>`;
}
