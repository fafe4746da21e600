// How a URL may appear in messages and status: never with its credentials.

/** The URL without user info, query or fragment: what may appear in messages. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    u.search = ''
    u.hash = ''
    return u.toString()
  } catch {
    // Not a URL: show only up to the first "@", which is where user info would end.
    return url.replace(/\/\/[^/]*@/, '//')
  }
}
