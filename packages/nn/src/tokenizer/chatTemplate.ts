// A chat template (the Jinja `chat_template` of tokenizer_config.json) rendered by `@huggingface/jinja`, with the
// context transformers' `apply_chat_template` gives: `messages`, `add_generation_prompt`, the special tokens
// (`bos_token`, ...) and `raise_exception` (a builtin of the jinja package). Parsed once, at construction; a parse error names the template.

import { Template } from '@huggingface/jinja';
import { TokenizerError } from './tokenizerError.js';

/** One chat message, as chat templates read it (`role` is usually system, user or assistant). */
export interface ChatMessage {
  role: string;
  content: string;
  /** Anything else a template reads (tool calls, names, ...). */
  [key: string]: unknown;
}

/** Options of `applyChatTemplate`. */
export interface ChatTemplateOptions {
  /** End with the prompt of an assistant turn (default false), as transformers' `add_generation_prompt`. */
  addGenerationPrompt?: boolean;
  /** More template variables (e.g. `tools`, `date_string`); they override the defaults. */
  variables?: Record<string, unknown>;
}

/** A parsed Jinja chat template; `render` formats a conversation. */
export class ChatTemplate {
  private readonly template: Template;

  /** Parses `source`; `specials` (e.g. `{ bos_token: '<s>' }`) are template variables of every render. */
  constructor(
    readonly source: string,
    private readonly specials: Readonly<Record<string, string>> = {},
  ) {
    if (typeof source !== 'string') throw new TokenizerError(`chat_template must be a string, got ${typeof source}`);
    try {
      this.template = new Template(source);
    } catch (e) {
      throw new TokenizerError(`chat_template does not parse: ${(e as Error).message}`);
    }
  }

  /** The conversation as the model's prompt text. */
  render(messages: readonly ChatMessage[], opts: ChatTemplateOptions = {}): string {
    if (!Array.isArray(messages)) throw new TokenizerError('applyChatTemplate: messages must be an array of { role, content }');
    messages.forEach((m, i) => {
      if (typeof m?.role !== 'string') throw new TokenizerError(`applyChatTemplate: message ${i} has no string role`);
    });
    try {
      return this.template.render({
        ...this.specials,
        messages,
        add_generation_prompt: opts.addGenerationPrompt ?? false,
        ...opts.variables,
      });
    } catch (e) {
      // includes the template's own raise_exception('...') (a jinja builtin), e.g. for an unknown role
      throw new TokenizerError(`chat template failed: ${(e as Error).message}`);
    }
  }
}
