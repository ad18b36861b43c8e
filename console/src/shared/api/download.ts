import { ApiError, failureOf } from '@rapport/sdk';

/**
 * Files the API answers (exports, templates, problems.csv) reach the user through `fetch` with the
 * access token (the console sends no cookie to the API), then a Blob and an object URL. The body is
 * read a chunk at a time: the page stays responsive however long the file is, shows the bytes as
 * they come, and can stop the download. The chunks are held as a Blob, which the browser keeps
 * outside the JavaScript heap (Chromium moves large ones to disk).
 */
export interface FileAnswer {
  data?: ReadableStream<Uint8Array> | null;
  error?: unknown;
  response: Response;
}

export interface DownloadedFile {
  blob: Blob;
  fileName: string;
}

/** The file name a `Content-Disposition` gives, else `fallback`. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const star = disposition?.match(/filename\*=UTF-8''([^;]+)/i);
  if (star?.[1]) return decodeURIComponent(star[1]);
  const plain = disposition?.match(/filename="?([^";]+)"?/i);
  return plain?.[1] ?? fallback;
}

/**
 * The file of an answer made with `parseAs: 'stream'`. A failure (an HTTP error, or the HTTP 200
 * `{status:0}` envelope a file route answers with JSON) throws ApiError.
 */
export async function readFile(answer: FileAnswer, fallbackName: string, onProgress?: (bytes: number) => void): Promise<DownloadedFile> {
  const { response } = answer;
  const status = response.status;
  if (!response.ok) throw failureOf(answer.error, status) ?? new ApiError('http_error', `HTTP ${status}`, status);
  const type = response.headers.get('content-type') ?? '';
  const chunks: BlobPart[] = [];
  let bytes = 0;
  const reader = answer.data?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value as Uint8Array<ArrayBuffer>);
      bytes += value.byteLength;
      onProgress?.(bytes);
    }
  }
  const blob = new Blob(chunks, { type: type.split(';')[0] ?? '' });
  if (type.startsWith('application/json')) {
    const body = JSON.parse(await blob.text()) as unknown;
    throw failureOf(body, status) ?? new ApiError('http_error', 'The server answered no file', status);
  }
  return { blob, fileName: fileNameOf(response.headers.get('content-disposition'), fallbackName) };
}

/** Hands a file to the browser's downloads (an object URL on a link, clicked, then revoked). */
export function saveFile({ blob, fileName }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the URL once the click's task is over.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
