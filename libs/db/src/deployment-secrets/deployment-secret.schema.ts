import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * A secret of the whole deployment, made once and kept across master-key rotations (the API-key checksum keys): its
 * values sealed with a master key (SecretBox), re-sealed by `gw secrets:reencrypt` like the Secret Keys.
 */
@Schema({ collection: 'deployment_secrets', versionKey: false })
export class DeploymentSecret {
  @Prop({ type: String, required: true }) _id: string;
  @Prop({ type: [String], required: true }) sealed: string[];
  @Prop({ type: Date, required: true }) updatedAt: Date;
}

export const DeploymentSecretSchema = SchemaFactory.createForClass(DeploymentSecret);
