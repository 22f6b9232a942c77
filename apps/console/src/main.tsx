import { render } from 'preact';
import { ConsoleApp } from './console-app';
import './styles.css';

// The theme chosen last time (only the theme is kept across tabs; the token never is), else the system's.
const chosen = window.localStorage.getItem('scrape-console.theme');
const systemDark = window.matchMedia('(prefers-color-scheme: dark)').matches;
document.documentElement.dataset.theme = chosen === 'dark' || chosen === 'light' ? chosen : systemDark ? 'dark' : 'light';

render(<ConsoleApp />, document.getElementById('app')!);
