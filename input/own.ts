/**
 * Own-property checks for objects whose keys come from outside (bodies, YAML, fixtures, CLI
 * words): `'x' in obj` and `obj[word]` also see what every object inherits
 * (`constructor`, `toString`, `__proto__`, …), so a client word could find a function.
 */

/** `key` is an own property of `value`; narrows a union to the members that declare it. */
export function hasOwn<T extends object, K extends PropertyKey>(
  value: T,
  key: K,
): value is Extract<T, { [P in K]: unknown }> {
  return Object.hasOwn(value, key);
}

/** The value of an own property of `value`, or undefined (never an inherited one). */
export function ownValue(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
