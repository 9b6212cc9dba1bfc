import { useEffect, useState } from 'preact/hooks';
import { type Account, api, ok } from './api.ts';
import { AccountPage } from './pages/account.tsx';
import { AdminPage } from './pages/admin.tsx';
import { AuditPage } from './pages/audit.tsx';
import { BatchPage } from './pages/batch.tsx';
import { ClientPage, ClientsPage } from './pages/clients.tsx';
import { ListsPage } from './pages/lists.tsx';
import { PolicyPage, ProposalPage } from './pages/policy.tsx';
import { QueuePage } from './pages/queue.tsx';
import { ScreenPage } from './pages/screen.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { href, onLinkClick, useRoute } from './router.ts';
import { currentKey, signOut } from './session.ts';
import { ErrorNote, Loading } from './ui.tsx';

const NAV: { path: string; label: string; admin?: boolean }[] = [
  { path: '/', label: 'Account' },
  { path: '/queue', label: 'Alert queue' },
  { path: '/approvals', label: 'Approvals', admin: true },
  { path: '/clients', label: 'Clients' },
  { path: '/batch', label: 'Batch' },
  { path: '/admin', label: 'Users', admin: true },
  { path: '/audit', label: 'Audit trail', admin: true },
  { path: '/lists', label: 'Lists' },
  { path: '/webhooks', label: 'Webhooks', admin: true },
  { path: '/settings', label: 'Settings', admin: true },
  { path: '/policy', label: 'Policy', admin: true },
];

export function App() {
  const [account, setAccount] = useState<Account | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [signedIn, setSignedIn] = useState(Boolean(currentKey()));
  const route = useRoute();

  const refresh = async () => {
    try {
      setAccount(ok(await api.GET('/me')));
    } catch (caught) {
      setError(caught as Error);
      signOut();
      setSignedIn(false);
    }
  };
  useEffect(() => {
    if (signedIn) void refresh();
  }, [signedIn]);

  if (!signedIn)
    return (
      <SignIn
        error={error}
        onSignedIn={() => {
          setError(null);
          setSignedIn(true);
        }}
      />
    );
  if (!account)
    return (
      <main id="main">
        <Loading what="your account" />
      </main>
    );

  const admin = account.role === 'admin';
  const { path } = route;
  const section = `/${path.split('/')[1] ?? ''}`;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: delegates link clicks to the router; each link stays a link
    // biome-ignore lint/a11y/useKeyWithClickEvents: Enter on a link fires click, which this handles
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">Screening console</span>
        <nav aria-label="Console">
          <ul>
            {NAV.filter((item) => admin || !item.admin).map((item) => (
              <li key={item.path}>
                <a
                  href={href(item.path)}
                  aria-current={
                    section === item.path || (item.path === '/queue' && section === '/screens')
                      ? 'page'
                      : undefined
                  }
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {account.user.name} ({account.role}) · {account.tenant.name}
        </span>
        <button
          type="button"
          onClick={() => {
            signOut();
            setAccount(null);
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main">
        <ErrorNote error={error} />
        {page(path, account, refresh)}
      </main>
    </div>
  );
}

function page(path: string, account: Account, refresh: () => Promise<void>) {
  const [, section, id] = path.split('/');
  switch (section) {
    case '':
    case undefined:
      return <AccountPage account={account} onChanged={refresh} />;
    case 'queue':
      return <QueuePage source="pending" />;
    case 'approvals':
      return <QueuePage source="approvals" />;
    case 'screens':
      return <ScreenPage key={id} screenId={decodeURIComponent(id ?? '')} account={account} />;
    case 'clients':
      return id ? <ClientPage key={id} clientId={decodeURIComponent(id)} /> : <ClientsPage />;
    case 'batch':
      return (
        <BatchPage key={id} included={account.plan.batch} batchId={id ? decodeURIComponent(id) : undefined} />
      );
    case 'admin':
      return <AdminPage account={account} />;
    case 'audit':
      return <AuditPage />;
    case 'lists':
      return <ListsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'settings':
      return <SettingsPage />;
    case 'policy':
      return id ? (
        <ProposalPage key={id} proposalId={decodeURIComponent(id)} account={account} />
      ) : (
        <PolicyPage />
      );
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            No console page at {path}. <a href={href('/')}>Back to your account</a>.
          </p>
        </>
      );
  }
}
