/** What `/console/api/gallery` answers: the apps a workspace can connect (`core/operator/gallery.ts`). */

export interface CredentialSource {
  text: string;
  url?: string;
}

export interface GalleryField {
  name: string;
  label: string;
  secret: boolean;
  obtain?: CredentialSource;
}

export interface GallerySetting {
  name: string;
  description: string;
  kind: 'choice' | 'host' | 'text';
  enum?: string[];
  default?: string;
}

export interface GalleryApp {
  id: string;
  name: string;
  description: string;
  documentationUrl: string;
  kind: 'native' | 'curated';
  counts?: { read: number; write: number; destructive: number };
  fields: GalleryField[];
  settings: GallerySetting[];
  remote?: { url: string; signIn: boolean; support: CredentialSource };
  defaultName: string;
  connected: string[];
}

export interface ConnectedApp {
  connection: string;
  kind: 'native' | 'curated';
  next: 'review' | 'sign_in' | 'credential';
}
