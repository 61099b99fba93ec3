// Types of the vendored htm build (htm.mjs), for the type check only (htm's own htm.d.ts).
declare const htm: {
  bind<HResult>(
    h: (type: any, props: Record<string, any>, ...children: any[]) => HResult
  ): (strings: TemplateStringsArray, ...values: any[]) => HResult | HResult[];
};
export default htm;
