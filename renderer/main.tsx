// Renderer entry: bundled fonts (the app must look right offline), styles, theme before the
// first paint, then the app over whichever transport getHostApi() picks.
import '@fontsource-variable/inter';
import '@fontsource/jetbrains-mono/400.css';
import '@fontsource/jetbrains-mono/600.css';
import './styles/index.css';
import { getHostApi } from './api';
import { mountApp } from './app';
import { installNavigation } from './state/nav-store';
import { installTheme } from './state/theme';

installTheme();
installNavigation();
const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
mountApp(getHostApi(), container);
