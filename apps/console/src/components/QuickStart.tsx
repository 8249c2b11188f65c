import { Button, Code, CopyButton, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

type Language = 'curl' | 'python' | 'node';

/** Ready-to-paste calls for each capability, against this gateway's own address, with a key placeholder. */
function snippets(base: string): Record<'embeddings' | 'chat' | 'imageEdit', Record<Language, string>> {
  const imageBody = `{
    "model": "x-image-edit-plus",
    "input": {"messages": [{"role": "user", "content": [
      {"image": "https://example.com/photo.png"},
      {"text": "Make the sky a sunset"}
    ]}]},
    "parameters": {"n": 1}
  }`;
  return {
    embeddings: {
      curl: `curl ${base}/embeddings \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "text-embedding-v4", "input": "The quick brown fox"}'`,
      python: `from openai import OpenAI

client = OpenAI(api_key="YOUR_API_KEY", base_url="${base}")
result = client.embeddings.create(model="text-embedding-v4", input="The quick brown fox")
print(len(result.data[0].embedding))`,
      node: `import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'YOUR_API_KEY', baseURL: '${base}' });
const result = await client.embeddings.create({ model: 'text-embedding-v4', input: 'The quick brown fox' });
console.log(result.data[0].embedding.length);`,
    },
    chat: {
      curl: `curl ${base}/chat/completions \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "x-chat", "messages": [{"role": "user", "content": "Hello!"}]}'`,
      python: `from openai import OpenAI

client = OpenAI(api_key="YOUR_API_KEY", base_url="${base}")
reply = client.chat.completions.create(model="x-chat", messages=[{"role": "user", "content": "Hello!"}])
print(reply.choices[0].message.content)`,
      node: `import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'YOUR_API_KEY', baseURL: '${base}' });
const reply = await client.chat.completions.create({ model: 'x-chat', messages: [{ role: 'user', content: 'Hello!' }] });
console.log(reply.choices[0].message.content);`,
    },
    imageEdit: {
      curl: `curl ${base}/images/edits \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '${imageBody.replace(/\n {2}/g, '\n')}'`,
      python: `from openai import OpenAI

client = OpenAI(api_key="YOUR_API_KEY", base_url="${base}")
# The gateway's image edit takes JSON (one to three images and an instruction), so it is sent as a raw POST.
result = client.post("/images/edits", cast_to=object, body=${imageBody.replace(/\n {2}/g, '\n')})
print(result["data"][0]["url"])`,
      node: `import OpenAI from 'openai';

const client = new OpenAI({ apiKey: 'YOUR_API_KEY', baseURL: '${base}' });
// The gateway's image edit takes JSON (one to three images and an instruction), so it is sent as a raw POST.
const result = await client.post('/images/edits', { body: ${imageBody.replace(/\n {2}/g, '\n')} });
console.log(result.data[0].url);`,
    },
  };
}

export function QuickStart() {
  const { t } = useTranslation();
  const base = `${window.location.origin}/v1`;
  const all = snippets(base);
  return (
    <Stack>
      <Text size="sm">{t('quickStart.intro', { base })}</Text>
      {(['embeddings', 'chat', 'imageEdit'] as const).map((capability) => (
        <Stack key={capability} gap="xs">
          <Title order={3} size="h5">
            {t(`quickStart.${capability}`)}
          </Title>
          <Tabs defaultValue="curl">
            <Tabs.List>
              <Tabs.Tab value="curl">curl</Tabs.Tab>
              <Tabs.Tab value="python">Python</Tabs.Tab>
              <Tabs.Tab value="node">Node.js</Tabs.Tab>
            </Tabs.List>
            {(['curl', 'python', 'node'] as const).map((language) => (
              <Tabs.Panel key={language} value={language} pt="xs">
                <Group justify="end" mb={4}>
                  <CopyButton value={all[capability][language]}>
                    {({ copied, copy }) => (
                      <Button size="compact-xs" variant="light" onClick={copy}>
                        {copied ? t('secrets.copied') : t('secrets.copy')}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
                {/* Focusable: a snippet wider than a phone scrolls sideways by arrow keys too. */}
                <Code block tabIndex={0}>
                  {all[capability][language]}
                </Code>
              </Tabs.Panel>
            ))}
          </Tabs>
        </Stack>
      ))}
    </Stack>
  );
}
