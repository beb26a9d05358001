import { redactText } from './src/core/transcript/redact.ts';
const s = [
 'aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
 '{"type":"service_account","private_key_id":"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678","private_key":"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----\\n","client_email":"x@y.iam.gserviceaccount.com"}',
 'db_password=Xk9pQ2mZ7vLw',
 'password: hunter2Xq9',
 '  api_key: Zq3x9Lm2Pw8Rt5Yv',
 'redis://:Xk9pQ2mZ7vLw@cache.internal:6379',
 'jdbc:mysql://db:3306/app?user=app&password=Xk9pQ2mZ7vLw',
 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zq3x9Lm2Pw8Rt5Yv1Nb7Kc4Hd6Jf0Gs2Aq9We3RtZq3x9Lm2Pw8Rt5Yv1Nb7Kc4Hd6Jf0Gs2Aq==;EndpointSuffix=core.windows.net',
 'mysql -u root -pXk9pQ2mZ7vLw app',
 "mysql -u root -p'Xk9p!Q2mZ7' app",
 'curl -u admin:Xk9pQ2mZ7vLw https://api.example.com',
 'cd app && PGPASSWORD=Xk9pQ2mZ7vLw psql -h db',
 'my password is hunter2x',
 'the pw is Tr0ub4dor&3, ok?',
 'docker login -u me -p Xk9pQ2mZ7vLw registry.io',
 'psql --password Xk9pQ2mZ7vLw',
 '//registry.npmjs.org/:_authToken=Xk9pQ2mZ7vLwAbCdEf',
 'Authorization: Basic YWRtaW46WGs5cFEybVo3dkx3',
 'postgres://app:Xk9pQ2mZ7vLw@db:5432/app',
 'https://admin:Xk9pQ2mZ7vLw@example.org/x',
 'AWS_SECRET_ACCESS_KEY=Zq3x9Lm2Pw8Rt5Yv1Nb7Kc4Hd6Jf0Gs2Aq9We3Rt',
 // negatives
 'password reset flow', 'set the password field', 'the password is required.', 'const password = getPassword();',
 'password: string;', 'token: process.env.TOKEN', 'docker run -u 1000:1000 img', 'mysql -p app', 'max_tokens: 4096',
 'connect(user=user, password=password)', 'api_key=self.api_key', '--password-stdin', 'the token is 24000 tokens long',
];
for (const x of s) { const r = await redactText(x); console.log(JSON.stringify(r.counts), '|', r.text.slice(0, 150)); }
