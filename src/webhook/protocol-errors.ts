// Answers to requests that never become requests: bytes that are not HTTP/1.1,
// headers that are too large or too slow, an Expect the server cannot meet.
// Node's default for these is a bare status line, or none; the API server
// and whoever reads its logs get a Status body that says what was wrong
// instead. Pure: the app writes the bytes.

import { STATUS_CODES } from 'node:http'

export interface ProtocolRefusal {
  readonly code: number
  /** For metrics: the cause label. */
  readonly cause: string
  readonly message: string
}

/** llhttp's error codes (and Node's timeout) that we name; anything else is a generic 400. */
const BY_ERROR_CODE: Readonly<Record<string, ProtocolRefusal>> = {
  HPE_HEADER_OVERFLOW: { code: 431, cause: 'HeadersTooLarge', message: 'the request headers exceed the server limit of 16 KiB' },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 408,
    cause: 'RequestTimeout',
    message: 'the request (headers and body) did not arrive within the server deadline',
  },
  HPE_INVALID_CONTENT_LENGTH: { code: 400, cause: 'BadContentLength', message: 'the Content-Length header is not a single valid length' },
  HPE_UNEXPECTED_CONTENT_LENGTH: {
    code: 400,
    cause: 'BadContentLength',
    message: 'the request has both Content-Length and Transfer-Encoding, which HTTP/1.1 forbids',
  },
  HPE_INVALID_TRANSFER_ENCODING: { code: 400, cause: 'BadFraming', message: 'the Transfer-Encoding header is not valid' },
  HPE_INVALID_CHUNK_SIZE: { code: 400, cause: 'BadFraming', message: 'a chunk size of the chunked body is not valid' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: 400, cause: 'BadFraming', message: 'the chunk extensions of the body are too large' },
  HPE_INVALID_METHOD: { code: 400, cause: 'BadRequestLine', message: 'the request line does not start with an HTTP method' },
  HPE_INVALID_URL: { code: 400, cause: 'BadRequestLine', message: 'the request target is not a valid URL path' },
  HPE_INVALID_VERSION: { code: 400, cause: 'BadRequestLine', message: 'the request is not HTTP/1.1 (or 1.0)' },
  HPE_INVALID_HEADER_TOKEN: { code: 400, cause: 'BadHeader', message: 'a header name is not valid (or a header lacks its colon)' },
  HPE_INVALID_CONSTANT: { code: 400, cause: 'BadRequestLine', message: 'the request is not HTTP/1.1' },
  HPE_CR_EXPECTED: { code: 400, cause: 'BadFraming', message: 'a line of the request does not end with CRLF' },
  HPE_LF_EXPECTED: { code: 400, cause: 'BadFraming', message: 'a line of the request does not end with CRLF' },
}

export function protocolRefusal(errorCode: string | undefined): ProtocolRefusal {
  const known = errorCode === undefined ? undefined : BY_ERROR_CODE[errorCode]
  if (known !== undefined) return known
  return {
    code: 400,
    cause: 'BadHttp',
    message: `the request is not valid HTTP/1.1${errorCode === undefined ? '' : ` (${errorCode.replace(/[^A-Z0-9_]/g, '')})`}`,
  }
}

/** An Expect header other than 100-continue: HTTP says 417. */
export function expectationRefusal(): ProtocolRefusal {
  return {
    code: 417,
    cause: 'ExpectationFailed',
    message: 'the Expect header asks for something this server does not do; only 100-continue is understood',
  }
}

/** The reason phrase and Status reason for a code. */
export function reasonPhrase(code: number): string {
  return STATUS_CODES[code] ?? 'Error'
}

/** A complete HTTP/1.1 response that closes the connection, for writing straight to a socket. */
export function rawResponse(code: number, body: string): string {
  return (
    `HTTP/1.1 ${code} ${reasonPhrase(code)}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  )
}
