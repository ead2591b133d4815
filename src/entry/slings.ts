import { start } from '../bin.js';

// slings: the same program with https:// as the default scheme.
start('https');
