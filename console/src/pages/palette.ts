import type { ChartLine } from '../components/chart.js';

/** Outcome colours, the same on every chart (the legend names them too). */
export const OUTCOME_LINES: readonly ChartLine[] = [
  { label: 'allowed', color: '#2f9e44' },
  { label: 'rejected', color: '#e03131' },
  { label: 'shadow-rejected', color: '#e8890c' },
  { label: 'short-circuited', color: '#1c7ed6' },
];

export const POLICY_COLORS: readonly string[] = [
  '#1c7ed6',
  '#e8890c',
  '#2f9e44',
  '#ae3ec9',
  '#e03131',
  '#0c8599',
  '#5c940d',
  '#d6336c',
];
