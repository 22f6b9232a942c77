import { navigate } from '../ui/router';
import { handToPlayground } from './scrape-form';

/** Hands a suggested request (guidance, a viability verdict) to the playground and opens it there. */
export function OpenInPlayground({ request, primary = false }: { request: Record<string, unknown>; primary?: boolean }) {
  return (
    <button
      type="button"
      class={primary ? 'primary' : undefined}
      onClick={() => {
        handToPlayground(request);
        // A fresh route each time, so the playground mounts anew and reads the request.
        navigate('playground', String(Date.now()));
      }}
    >
      Open the suggested request in the playground
    </button>
  );
}
