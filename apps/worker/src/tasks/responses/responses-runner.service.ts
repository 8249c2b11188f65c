import { ResponseObject, UpstreamAttempt } from '@gateway/contracts';
import { isResponsesAnswer, ProviderRouter, RespondAnswer, RespondCall, RoutedAnswer } from '@gateway/providers';
import { ChunkStreams } from '@gateway/redis';
import { Injectable } from '@nestjs/common';
import { intoTaskStream } from '../task-stream';
import { PassedThroughEventStream } from './passed-through-events';
import { passedThroughResponse } from './passed-through';
import { ResponseEventStream } from './response-events';
import { finalResponse, ResponsesTask } from './response-object';

/** A chat task's answer: the response body, and what it is billed and recorded by. */
export interface AnsweredChat {
  body: string;
  promptTokens: number;
  completionTokens: number;
  route: RoutedAnswer<unknown>['route'];
  providerMs: number;
}

/**
 * Runs a POST /v1/responses task (docs/contracts.md, responses) through ProviderRouter.respond, which gives each route
 * the request the way it takes one: an upstream with the Responses endpoint the caller's request (the job's
 * `responses.upstream`), any other route its chat translation. Either answer becomes the gateway's `response` object
 * (passed-through.ts, response-object.ts), and a stream the gateway's events (passed-through-events.ts,
 * response-events.ts), so the caller cannot tell which route answered.
 */
@Injectable()
export class ResponsesRunner {
  constructor(
    private readonly router: ProviderRouter,
    private readonly streams: ChunkStreams,
  ) {}

  async run(modelId: string, job: ResponsesTask, upstreamCalls?: UpstreamAttempt[]): Promise<AnsweredChat> {
    const call: RespondCall = { request: job.request, features: job.features, responses: job.responses.upstream };
    const task = { taskId: job.taskId, attempts: upstreamCalls };
    if (!job.stream) {
      const answer = await this.router.respond(modelId, call, task);
      const { value } = answer;
      return answered(answer, isResponsesAnswer(value) ? passedThroughResponse(job, value) : finalResponse(job, value));
    }
    return intoTaskStream(this.streams, job.taskId, async ({ append, stop, onRoute }) => {
      const translated = new ResponseEventStream(job, append);
      const relayed = new PassedThroughEventStream(job, append);
      const relay = { onEvent: relayed.add.bind(relayed), onChunk: translated.add.bind(translated) };
      const answer = await this.router.streamRespond(modelId, call, relay, stop, { ...task, onRoute });
      const { value } = answer;
      return answered(answer, isResponsesAnswer(value) ? await relayed.finish(value) : await translated.finish(value));
    });
  }
}

function answered(answer: RoutedAnswer<RespondAnswer>, response: ResponseObject): AnsweredChat {
  return {
    body: JSON.stringify(response),
    promptTokens: answer.value.promptTokens,
    completionTokens: answer.value.completionTokens,
    route: answer.route,
    providerMs: answer.providerMs,
  };
}
