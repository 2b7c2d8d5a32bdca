import { Empty } from '../components/bits.js';
import { NAV, pageOf } from '../lib/nav.js';

/** A navigation entry whose feature is not in this service yet. */
export function Soon() {
  const entry = NAV.find((e) => e.id === pageOf(location.hash));
  return (
    <>
      <h1>{entry?.label}</h1>
      <Empty>Not in this service yet: {entry?.soon}.</Empty>
    </>
  );
}
