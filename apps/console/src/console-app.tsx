import { useEffect, useState } from 'preact/hooks';
import { AdminPage } from './admin/admin-page';
import { answer, api, ApiProblem, type Schemas } from './api/api-client';
import { CollectionPage, CollectionsPage } from './collections/collections-page';
import { RunPage } from './collections/run-page';
import { PlaygroundPage } from './playground/playground-page';
import { ProjectsPage } from './projects/projects-page';
import { sessionToken } from './session/session-token';
import { navigate, useRoute } from './ui/router';
import { Field, ProblemNotice } from './ui/widgets';
import { UsagePage } from './usage/usage-page';
import { ViabilityPage } from './viability/viability-page';
import { CrawlPage } from './crawls/crawl-page';
import { MonitorsPage } from './monitors/monitors-page';

type Account = Schemas['AccountView'];

const PAGES = [
  ['playground', 'Playground'],
  ['viability', 'Viability'],
  ['crawl', 'Crawl'],
  ['monitors', 'Monitors'],
  ['collections', 'Collections'],
  ['projects', 'Projects'],
  ['usage', 'Usage'],
] as const;

function SignIn({ onSignedIn }: { onSignedIn: (account: Account) => void }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setPending(true);
    setProblem(null);
    sessionToken.write(token.trim());
    try {
      onSignedIn(await answer(api.GET('/v1/account')));
    } catch (error) {
      sessionToken.clear();
      setProblem(error instanceof ApiProblem ? error : null);
    } finally {
      setPending(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Scraping API console</h1>
      <form onSubmit={(e) => void submit(e)} class="card">
        <Field
          id="token"
          label="API token"
          hint="Kept in this tab only (sessionStorage) and sent only to this gateway, in the Authorization header."
        >
          <input id="token" type="password" autocomplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary" disabled={pending || token.trim() === ''}>
          Sign in
        </button>
        <ProblemNotice problem={problem} />
      </form>
    </main>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme ?? 'light');
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    window.localStorage.setItem('scrape-console.theme', theme);
  }, [theme]);
  const dark = theme === 'dark';
  return (
    <button type="button" class="theme" aria-pressed={dark} onClick={() => setTheme(dark ? 'light' : 'dark')}>
      {dark ? 'Light theme' : 'Dark theme'}
    </button>
  );
}

function Page({ route, account }: { route: string[]; account: Account }) {
  const [page, id, sub, subId] = route;
  if (page === 'viability') return <ViabilityPage runId={id} />;
  if (page === 'crawl') return <CrawlPage crawlId={id} jobId={sub} />;
  if (page === 'monitors') return <MonitorsPage monitorId={id} jobId={sub} />;
  if (page === 'collections' && id && sub === 'runs' && subId) return <RunPage collectionId={id} runId={subId} />;
  if (page === 'collections' && id) return <CollectionPage collectionId={id} />;
  if (page === 'collections') return <CollectionsPage />;
  if (page === 'projects') return <ProjectsPage />;
  if (page === 'usage') return <UsagePage />;
  if (page === 'admin' && account.is_admin) return <AdminPage />;
  return <PlaygroundPage />;
}

/** The console: sign in with a token, then the pages over the public API. */
export function ConsoleApp() {
  const route = useRoute();
  const [account, setAccount] = useState<Account | null>(null);
  const [restoring, setRestoring] = useState(() => sessionToken.read() !== null);
  useEffect(() => {
    if (!restoring) return;
    answer(api.GET('/v1/account'))
      .then(setAccount)
      .catch(() => sessionToken.clear())
      .finally(() => setRestoring(false));
  }, []);
  useEffect(() => {
    const title = PAGES.find(([id]) => id === route[0])?.[1] ?? (route[0] === 'admin' ? 'Administration' : 'Playground');
    document.title = `${title} · Scraping API console`;
  }, [route.join('/')]);
  if (restoring) return <p class="loading">Signing in…</p>;
  if (!account) return <SignIn onSignedIn={setAccount} />;
  const current = route[0] ?? 'playground';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Scraping API</span>
        <nav aria-label="Console">
          <ul>
            {[...PAGES, ...(account.is_admin ? ([['admin', 'Admin']] as const) : [])].map(([id, label]) => (
              <li>
                <a href={`#/${id}`} aria-current={current === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          <span data-testid="signed-in-as">{account.client_id}</span> · {account.plan}
          {account.is_admin ? ' · admin' : ''}
        </span>
        <ThemeToggle />
        <button
          type="button"
          onClick={() => {
            sessionToken.clear();
            setAccount(null);
            navigate('playground');
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={route.join('/')} route={route} account={account} />
      </main>
    </>
  );
}
