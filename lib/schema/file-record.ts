// The file record as the API shows it: POST /upload's answer, and an `upload` field once `depth` or
// `include` populated it. One list of its fields, below both of its writers (the OpenAPI document and the
// generated TypeScript types), so the two cannot drift apart.

/** What one field of the file record holds. */
export type FileRecordValue = 'id' | 'text' | 'integer' | 'date';

export interface FileRecordField {
  name: string;
  type: FileRecordValue;
  /** Null when the file has none (`alt`). */
  nullable: boolean;
  description?: string;
}

/** The file record's fields, in wire order; every one is in every record. */
export const FILE_RECORD_FIELDS: readonly FileRecordField[] = Object.freeze([
  { name: 'id', type: 'id', nullable: false },
  { name: 'filename', type: 'text', nullable: false, description: 'The stored, unique name: the last segment of `url`.' },
  { name: 'originalName', type: 'text', nullable: false },
  { name: 'mimeType', type: 'text', nullable: false },
  { name: 'size', type: 'integer', nullable: false },
  { name: 'url', type: 'text', nullable: false, description: "Where the file is served, under the router's mount path." },
  { name: 'alt', type: 'text', nullable: true },
  { name: 'createdAt', type: 'date', nullable: false },
]);

/** The name of the file record's OpenAPI component and generated TypeScript type. */
export const FILE_RECORD_NAME = 'FileRecord';
