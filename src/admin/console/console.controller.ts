import { Controller, Get, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ProblemException } from '../../common/problem.exception.js';
import { AnyReply, setReplyHeader } from '../../http/http-context.js';
import { ConsoleFiles } from './console-files.js';

/**
 * Only this origin's scripts, styles and API; no inline code, no framing.
 * The console's charts and components style elements through the CSSOM
 * (`el.style.x = …`), which `style-src 'self'` allows.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The admin console: static files under /admin/ui, served from memory.
 * The page needs no admin token (it holds no data); every figure and every
 * change it shows goes through the admin API with the token its user types.
 */
@ApiExcludeController()
@Controller('admin/ui')
export class ConsoleController {
  constructor(private readonly files: ConsoleFiles) {}

  @Get()
  index(@Res({ passthrough: true }) reply: AnyReply): StreamableFile {
    return this.send(reply, '');
  }

  /** The build's content-hashed files (vite writes every asset to assets/, flat). */
  @Get('assets/:file')
  asset(@Param('file') file: string, @Res({ passthrough: true }) reply: AnyReply): StreamableFile {
    return this.send(reply, `assets/${file}`);
  }

  private send(reply: AnyReply, path: string): StreamableFile {
    if (!this.files.built) {
      throw new ProblemException(404, 'console_not_built', 'The console is not built', {
        detail: 'Run `npm run build` (it builds the console into dist/console), then reload',
      });
    }
    const file = this.files.get(path);
    if (!file) throw new ProblemException(404, 'not_found', 'Not found');
    setReplyHeader(reply, 'content-type', file.type);
    setReplyHeader(
      reply,
      'cache-control',
      file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    setReplyHeader(reply, 'content-security-policy', CONSOLE_CSP);
    return new StreamableFile(file.body, { type: file.type, length: file.body.length });
  }
}
