/** A version id: `v` + UTC creation time to the second + a random tail (v20260101T120000Z-a1b2c3). */
export const VERSION_ID = /^v\d{8}T\d{6}Z-[0-9a-f]{6}$/;

export function isVersionId(name: string): boolean {
  return VERSION_ID.test(name);
}
