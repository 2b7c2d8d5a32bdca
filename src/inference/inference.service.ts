import { Inject, Injectable } from '@nestjs/common';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import type { InferenceConfig, RampartConfig } from '../config/config.types.js';
import { AnyReply, AnyRequest, requestState } from '../http/http-context.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { ChatCompletionRequestDto } from './dto/chat-completion-request.dto.js';
import { InferenceError } from './inference.errors.js';
import { InferenceMetrics } from './inference.metrics.js';
import {
  INFERENCE_BACKEND,
  InferenceBackend,
  InferenceCall,
  type SseSink,
  type StopDrained,
} from './inference-backend.js';
import { openInferenceCall } from './inference-call.js';
import type { ChatCompletion, ModelList } from './openai.types.js';
import { SseResponse, type StreamCut } from './sse-response.js';
import { CompletionRecorder } from './cache/completion-recorder.js';
import { ChargeMetrics } from './tokens/charge-metrics.js';
import { settlementOf } from './tokens/settle-usage.js';
import { UsageMeter } from './tokens/usage-meter.js';

type Mode = 'json' | 'stream' | 'models';

/** Runs one inference request on the configured backend and records its outcome. */
@Injectable()
export class InferenceService {
  private readonly m: InferenceMetrics;
  private readonly limits: InferenceConfig['stream'];
  private readonly charges: ChargeMetrics;

  constructor(
    @Inject(INFERENCE_BACKEND) readonly backend: InferenceBackend,
    metrics: MetricsService,
    @Inject(RAMPART_CONFIG) config: RampartConfig,
    private readonly recorder: CompletionRecorder,
  ) {
    this.limits = config.inference.stream;
    this.charges = new ChargeMetrics(metrics);
    this.m = new InferenceMetrics(metrics);
  }

  /**
   * A JSON chat.completion, or — with `stream: true` — server-sent events
   * written straight to the response, resolving (to undefined) once the
   * stream has ended so interceptors see the call's whole duration.
   */
  async handle(
    body: ChatCompletionRequestDto,
    req: AnyRequest,
    reply: AnyReply,
  ): Promise<ChatCompletion | undefined> {
    // A token reservation (tokens rules) is settled here, to what the answer used, however the call ends.
    const tokens = requestState(req).tokens;
    if (!tokens) return this.answer(body, req, reply);
    tokens.hold();
    const meter = new UsageMeter(body.model);
    let answered = false;
    let failure: unknown;
    try {
      const answer = await this.answer(body, req, reply, meter);
      answered = answer !== undefined || meter.opened;
      return answer;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      const { used, how } = settlementOf(tokens, meter, answered, failure);
      // Counted only when it applied (a reservation given back whole at the response's close stays uncharged).
      if (tokens.settle(used)) this.charges.record(how, used, meter.reported);
    }
  }

  private async answer(
    body: ChatCompletionRequestDto,
    req: AnyRequest,
    reply: AnyReply,
    meter?: UsageMeter,
  ): Promise<ChatCompletion | undefined> {
    if (!body.stream)
      return this.run(req, reply, 'json', async (call) => {
        const answer = await this.backend.complete(body, call);
        meter?.answer(answer);
        return answer;
      });
    // A stream past its limits is cut: its call ends as if the client had gone away.
    const cut = new AbortController();
    const onCut = (reason: StreamCut): void => {
      this.m.cutoffs.inc({ reason });
      cut.abort(new DOMException(`stream cut off (${reason})`, 'AbortError'));
    };
    await this.run(
      req,
      reply,
      'stream',
      async (call) => {
        let sse: SseSink = new SseResponse(reply, call.clientGone, { ...this.limits, onCut });
        let asked = body;
        if (meter) {
          // Metered: the backend is always asked for usage; the meter drops it unless the client asked too.
          const wants = body.stream_options?.include_usage === true;
          asked = { ...body, stream_options: { ...body.stream_options, include_usage: true } };
          sse = meter.sink(sse, wants);
        }
        // The deterministic answer cache keeps a stream only once it finished normally.
        const recording = this.recorder.recording(req);
        // A stopped stream tells the meter how it was read after the stop (for how its charge was settled).
        const metered = meter
          ? { ...call, stopped: (d: StopDrained) => void (meter.stop = d) }
          : call;
        await this.backend.stream(asked, metered, recording ? recording.sink(sse) : sse);
        if (recording && !call.signal.aborted) this.recorder.finish(req);
      },
      cut.signal,
    );
    return undefined;
  }

  /** The models the backend offers (`GET /v1/models`). */
  models(req: AnyRequest, reply: AnyReply): Promise<ModelList> {
    return this.run(req, reply, 'models', (call) => this.backend.models(call));
  }

  /** One backend call with its signals, timed and counted by outcome. */
  private async run<T>(
    req: AnyRequest,
    reply: AnyReply,
    mode: Mode,
    work: (call: InferenceCall) => Promise<T>,
    cut?: AbortSignal,
  ): Promise<T> {
    const call = openInferenceCall(req, reply, cut);
    const end = this.m.duration.startTimer({ backend: this.backend.kind, mode });
    try {
      const result = await work(call);
      end({ outcome: call.clientGone.aborted ? 'client_closed' : 'ok' });
      return result;
    } catch (err) {
      end({ outcome: err instanceof InferenceError ? err.kind : 'error' });
      throw err;
    } finally {
      call.dispose();
    }
  }
}
