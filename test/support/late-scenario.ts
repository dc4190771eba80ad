/**
 * A scenario that fails on purpose, for the HTML report's tests: Omar acknowledges at 140 s and
 * it expects 141 s, so its first difference lies on the timeline. The name is the caller's (a
 * markup-like one proves the report keeps it text).
 */
export function lateAcknowledgementScenario(name: string, proves: string): string {
  return `name: '${name}'
proves: ${proves}
badges: { group: Pharmacy }
timeline:
  - at: 0s
    alert: { notification: Delivery at dock, groups: [Pharmacy] }
    as: delivery
  - { at: 5s, tap: Lena Ortiz }
  - { at: 140s, tap: Omar Haddad }
duration: 200s
expect:
  events:
    items:
      - { type: start, task: delivery, at: 0s }
      - { type: acknowledged, device: Lena Ortiz, at: 5s }
      - { type: acknowledged, device: Omar Haddad, at: 141s }
`;
}
