// The sequence diagram's part of the dashboard stylesheet (assets.ts serves it with the rest): four
// lanes as the columns of a grid, their lifelines drawn as the steps' background, an arrow as a
// bordered box spanning the lanes it joins from the middle of one to the middle of the other, its
// head a CSS triangle. Classes, not inline styles: the dashboard's CSP forbids those.

/** CSS of the sequence diagram (pages/dashboard/sequence.tsx). */
export const SEQUENCE_CSS = `
.sequence { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
.sequence .lanes, .sequence summary { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); }
.sequence .lanes span { text-align: center; font-weight: 600; font-size: 13px; padding: 4px 2px 8px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
ol.steps { list-style: none; margin: 0; padding: 0;
  background-image: repeating-linear-gradient(to right, transparent 0 calc(12.5% - 1px), #9aa5b1 calc(12.5% - 1px) calc(12.5% + 1px), transparent calc(12.5% + 1px) 25%); }
ol.steps > li { margin: 0; }
.sequence summary { list-style: none; cursor: pointer; row-gap: 2px; padding: 6px 0; }
.sequence summary::-webkit-details-marker { display: none; }
.sequence summary:hover .label, .sequence details[open] > summary .label { text-decoration: underline; }
.sequence summary:focus-visible { outline: 3px solid #91a7ff; outline-offset: -3px; }
.arrow { position: relative; min-width: 0; text-align: center; font-size: 12px; padding-bottom: 3px; border-bottom: 2px solid var(--ink); }
.arrow.answer { border-bottom-style: dashed; }
.arrow.bad { border-bottom-color: var(--bad); }
.arrow .label { background: #fff; padding: 0 4px; overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.arrow.bad .label { color: var(--bad); }
.arrow.right::after, .arrow.left::after { content: ""; position: absolute; bottom: -6px; border-top: 5px solid transparent; border-bottom: 5px solid transparent; }
.arrow.right::after { right: -2px; border-left: 9px solid var(--ink); }
.arrow.left::after { left: -2px; border-right: 9px solid var(--ink); }
.arrow.bad.right::after { border-left-color: var(--bad); } .arrow.bad.left::after { border-right-color: var(--bad); }
.arrow.note { border: 1px solid #d9c27a; border-radius: 6px; background: #fffbeb; padding: 2px 6px; margin: 0 8%; }
.arrow.note .label { background: transparent; }
/* An arrow runs from the middle of its first lane to the middle of its last: half a lane in from each side. */
.c1 { grid-column-start: 1; } .c2 { grid-column-start: 2; } .c3 { grid-column-start: 3; } .c4 { grid-column-start: 4; }
.s1 { grid-column-end: span 1; } .s2 { grid-column-end: span 2; } .s3 { grid-column-end: span 3; } .s4 { grid-column-end: span 4; }
.arrow.s2:not(.note) { margin: 0 25%; } .arrow.s3:not(.note) { margin: 0 16.667%; } .arrow.s4:not(.note) { margin: 0 12.5%; }
.step-detail { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 4px 0 10px; }
.step-detail p { margin: 8px 0 2px; }
/* Whole, not a box that scrolls: a scrolling <pre> would need a keyboard stop of its own. */
.step-detail pre { max-height: none; }
.sr { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 600px) { .sequence { padding: 6px; } .sequence .lanes span { font-size: 11px; } .arrow { font-size: 11px; } }
`;
