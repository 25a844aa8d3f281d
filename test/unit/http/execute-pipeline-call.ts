/** A tool call of a POST /execute body, as the execute-pipeline tests write it. */
export const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });
