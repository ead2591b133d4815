import { start } from '../bin.js';

start('http');
