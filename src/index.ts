/**
 * The installable pi extension (default export). Placeholder until the
 * extension issue lands: it registers nothing.
 */
export default function toolRepairExtension(_pi: unknown): void {}
