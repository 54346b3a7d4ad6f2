/** The shapes of the labelled set: an authored case as written in authored/*.mjs, and a case of cases.jsonl. */

/**
 * An authored case: `[subject, label, fact, facts, note?]`. `facts` are the namespace's facts written for this
 * case; for a duplicate or a supersede the first is the target, for a new fact the first is the look-alike (none
 * in the `unrelated` category). Background facts of the subject (personas.mjs) are added by make-cases.mjs.
 * @typedef {[subject: string, label: Label, fact: string, facts: string[], note?: string]} Authored
 */

/** @typedef {'duplicate' | 'supersede' | 'new'} Label */

/**
 * One line of cases.jsonl.
 * @typedef {object} Case
 * @property {string} id
 * @property {string} category
 * @property {string[]} namespace_facts the facts already stored (keys f0..fN in the harness), 3–8 of them
 * @property {string} fact the fact being remembered
 * @property {Label} label
 * @property {number | null} target index into namespace_facts of the memory folded into or replaced (null for new)
 * @property {number | null} near for a new fact, the index of the stored fact it was written to resemble
 * @property {number} fold 1..6, balanced within each category and label
 * @property {string} subject whose memory this is (the persona or project)
 * @property {string} [note]
 */

export {};
