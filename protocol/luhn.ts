/** The Luhn check digit (ISO/IEC 7812) that IMEIs and ICCIDs end with. */

/** The digit that, appended to `digits`, makes the whole pass the Luhn check. */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  // From the right of the payload, every other digit (starting with the rightmost) is doubled.
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** Whether a digit string ends with its Luhn check digit. */
export function passesLuhn(digits: string): boolean {
  return /^\d{2,}$/.test(digits) && luhnCheckDigit(digits.slice(0, -1)) === digits.at(-1);
}
