/** The console's entry: its style sheet and the app, into `#app`. */
import { render } from 'preact';
import { App } from './app.tsx';
import './console.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
