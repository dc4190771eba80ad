/** `badge-sim generate`'s arguments for the 3-badge suite CI runs (every quorum and feature). */
export const GENERATE_3_BADGES = [
  '--devices',
  '3',
  '--quorum',
  'default,1,2',
  '--with',
  'cancel,timeout,offline,same-name',
];
