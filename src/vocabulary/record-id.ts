// A record id as import accepts it (contract §1): 1 to 64 letters, digits, `_` or `-`.

const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** True for a record id as import accepts it. */
export const isRecordId = (id: string) => RECORD_ID.test(id);
